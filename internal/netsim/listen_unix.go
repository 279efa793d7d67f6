//go:build unix

package netsim

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// listenBacklog listens on 127.0.0.1 with listen(2)'s backlog set: the Go
// runtime would use the system's maximum.
func listenBacklog(backlog int) (net.Listener, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("netsim: socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("netsim: bind: %w", err)
	}
	if err := syscall.Listen(fd, backlog); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("netsim: listen: %w", err)
	}
	f := os.NewFile(uintptr(fd), "netsim-listener")
	defer f.Close() // FileListener holds its own copy
	l, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("netsim: %w", err)
	}
	return l, nil
}
