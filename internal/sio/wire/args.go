package wire

// FirstArg returns the first of a library event's arguments, or nil.
func FirstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}
