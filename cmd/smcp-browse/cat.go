package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newCatCmd is a placeholder until its issue lands.
func newCatCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cat",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("cat: not built yet")
		},
	}
}
