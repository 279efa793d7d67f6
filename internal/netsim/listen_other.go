//go:build !unix

package netsim

import "net"

// listenBacklog listens on 127.0.0.1 with the system's default backlog:
// Go has no portable way to set it.
func listenBacklog(int) (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
