package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// parseArgs parses flags wherever they stand among the positional arguments,
// so "lindi cat FILE DATA -o x.npy" works. An argument that starts with "-"
// followed by a digit, ":" or "[" is positional: selections like "-8:" are not
// flags. "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			return append(pos, args[1:]...), nil
		case len(a) > 1 && a[0] == '-' && !strings.ContainsAny(a[1:2], "0123456789:[."):
			if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{text: flagUsage(fs)}
			} else if err != nil {
				return nil, usagef("%v", err)
			}
			args = fs.Args()
		default:
			pos = append(pos, a)
			args = args[1:]
		}
	}
	return pos, nil
}

// openFile opens FILE with the options shared by every command.
func openFile(ctx context.Context, name string, opts ...h5.Option) (*h5.File, error) {
	return h5.Open(ctx, name, append(openOptions(ctx), opts...)...)
}

// flagUsage describes a command's flags, after the line of the general usage
// that shows the command.
func flagUsage(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	in := false // in the command's lines: its synopsis and the description below it
	for _, line := range strings.Split(usage, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "lindi ") {
			in = strings.HasPrefix(t, "lindi "+fs.Name()+" ")
		}
		if in && t != "" {
			b.WriteString(line + "\n")
		}
	}
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}
