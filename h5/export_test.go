package h5

import "github.com/lindigo/lindi/internal/driver"

// AddDriver adds d to the formats Open tries, after the built-in ones: a
// test's format of its own. It is called from a test's init function.
func AddDriver(d driver.Driver) { drivers = append(drivers, d) }

// AddContainer adds c to the containers Create and OpenWrite write, after
// the built-in ones. It is called from a test's init function.
func AddContainer(c driver.Container) { containers = append(containers, c) }
