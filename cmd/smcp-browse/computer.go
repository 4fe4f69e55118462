package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newComputerCmd is a placeholder until its issue lands.
func newComputerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "computer",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("computer: not built yet")
		},
	}
}
