package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newBrowseCmd is a placeholder until its issue lands.
func newBrowseCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "smcp-browse",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("smcp-browse [--demo [--docs DIR] | --server URL --office ID]: not built yet")
		},
	}
}
