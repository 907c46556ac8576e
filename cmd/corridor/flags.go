package main

import "flag"

// parseInterspersed parses flags wherever they stand among the positional arguments
// (`corridor trigger EVENT --api URL` as well as `--api URL EVENT`): the standard flag package
// stops at the first positional argument, which left every later flag unread. "--" ends the
// flags; what follows it is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}
