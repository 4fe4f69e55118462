package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newLsCmd is a placeholder until its issue lands.
func newLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("ls: not built yet")
		},
	}
}
