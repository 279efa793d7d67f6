package lindibeam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockManifest makes this process the only writer of the manifest name:
// it creates name.lock, naming this host and process, or refuses when
// another running process holds it (a lock whose process of this host is
// gone is taken over), and removes a manifest of an earlier run, so that
// it never describes outputs this run replaces. unlock removes the lock.
// A manifest in an object store (gs://, s3://) is not locked.
func LockManifest(name string) (unlock func(), err error) {
	if strings.Contains(name, "://") {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	lock := name + ".lock"
	mine := fmt.Sprintf("%s %d\n", host, os.Getpid())
	for range 2 {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			_, err = f.WriteString(mine)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(lock)
				return nil, err
			}
			if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
				os.Remove(lock)
				return nil, err
			}
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		b, _ := os.ReadFile(lock)
		h, pid, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		n, perr := strconv.Atoi(pid)
		if h != host || perr != nil || n <= 0 || processRunning(n) {
			return nil, fmt.Errorf("lindibeam: manifest %s is being written by another job (%s holds %s); remove the lock if that job is gone", name, strings.TrimSpace(string(b)), lock)
		}
		os.Remove(lock) // its process of this host is gone
	}
	return nil, fmt.Errorf("lindibeam: manifest %s: could not take %s", name, lock)
}
