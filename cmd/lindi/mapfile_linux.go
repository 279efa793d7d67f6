package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// mapFile returns the contents of the file name and a function that
// releases them. On Linux the file is mapped into memory (private,
// copy-on-write, populated at once): its pages are the page cache's, so a
// 512 MB input costs neither a copy nor fresh memory. A file that cannot be
// mapped (empty, a pipe) is read.
func mapFile(name string) ([]byte, func() error, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size > 0 && size == int64(int(size)) {
		b, err := syscall.Mmap(int(fh.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
		if err == nil {
			return b, func() error { return syscall.Munmap(b) }, nil
		}
	}
	b, err := io.ReadAll(fh)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return b, func() error { return nil }, nil
}
