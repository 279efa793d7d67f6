//go:build !linux

package main

import "os"

// mapFile returns the contents of the file name, read into memory, and a
// function that releases them.
func mapFile(name string) ([]byte, func() error, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
