package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newServerCmd is a placeholder until its issue lands.
func newServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "server",
		Short: "not built yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("server: not built yet")
		},
	}
}
