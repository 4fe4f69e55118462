package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// newSkillsCmd lists a computer's SKILLs (client:get_skills) or prints one
// resource of a SKILL (client:get_skill).
func newSkillsCmd() *cobra.Command {
	var (
		cf      connFlags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "skills [NAME [REL_PATH]] (--server URL --office ID --computer NAME | --demo) [flags]",
		Short: "List a computer's SKILLs, or print one of a SKILL's files",
		Long: `skills without arguments lists the SKILLs the computer offers
(client:get_skills): one line each with NAME, SOURCE, TAGS and DESCRIPTION.
A SKILL comes from a folder the computer was started with (--skills DIR,
source "user") or from an MCP server's skill:// resources (source
"mcp:<bundle_id>", named mcp:<bundle_id>:<skill>).

skills NAME prints the SKILL's SKILL.md without its YAML front matter;
skills NAME REL_PATH prints another file of the SKILL (client:get_skill).
Text is printed with terminal control sequences removed (a SKILL is
untrusted text).

--json prints the GetSkillsRet or GetSkillRet as JSON. Errors:
"error CODE: message" on stderr and exit status 1 (4014 no such SKILL, 4016
malformed name, 4017 the file cannot be served: details.reason traversal,
forbidden, not_found or too_large); with --json the error payload also goes
to stdout. A usage mistake exits with status 2.`,
		Example: `  smcp-browse skills --computer pc --json | jq -r '.skills[].name'
  smcp-browse skills --computer pc pdf-tools
  smcp-browse skills --computer pc mcp:docs:summarize scripts/run.sh`,
		Args: usageArgs(cobra.MaximumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(true); err != nil {
				return report(cmd, err, false)
			}
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				ret, err := runSkills(cmd.Context(), &cf)
				if err != nil {
					return report(cmd, err, jsonOut)
				}
				if jsonOut {
					return writeJSON(out, ret)
				}
				return printSkills(out, ret.Skills)
			}
			rel := ""
			if len(args) == 2 {
				rel = args[1]
			}
			ret, err := runSkill(cmd.Context(), &cf, args[0], rel)
			if err != nil {
				return report(cmd, err, jsonOut)
			}
			if jsonOut {
				return writeJSON(out, ret)
			}
			if ret.Body == nil {
				return fmt.Errorf("%s %s (%s, %d bytes) comes as blob handle %s; read it with --json", args[0], ret.RelPath, ret.MIMEType, ret.TotalSize, ret.BlobHandle)
			}
			_, err = io.WriteString(out, ensureNewline(sanitize.Text(*ret.Body)))
			return err
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the answer as JSON")
	return cmd
}

func runSkills(ctx context.Context, cf *connFlags) (ret *protocol.GetSkillsRet, err error) {
	err = cf.with(ctx, func(s *session) error {
		ret, err = s.Agent.GetSkills(ctx, s.Computer)
		return wrapf(err, "get_skills")
	})
	return ret, err
}

func runSkill(ctx context.Context, cf *connFlags, name, rel string) (ret *protocol.GetSkillRet, err error) {
	err = cf.with(ctx, func(s *session) error {
		ret, err = s.Agent.GetSkill(ctx, s.Computer, name, rel)
		return wrapf(err, "get_skill %s", name)
	})
	return ret, err
}

// printSkills writes one tab-separated line per SKILL under a header.
func printSkills(w io.Writer, skills []protocol.A2CSkillRef) error {
	var b strings.Builder
	b.WriteString("NAME\tSOURCE\tTAGS\tDESCRIPTION\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", cell(s.Name), cell(s.Source), cell(strings.Join(s.Tags, ",")), cell(s.Description))
	}
	if len(skills) == 0 {
		b.WriteString("(no skills)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is s on one line without control characters.
func cell(s string) string {
	return strings.Join(strings.Fields(sanitize.Text(s)), " ")
}
