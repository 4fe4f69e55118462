package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newServeDocsCmd is a placeholder until its issue lands.
func newServeDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "serve-docs",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("serve-docs: not built yet")
		},
	}
}
