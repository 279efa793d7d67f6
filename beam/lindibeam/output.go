package lindibeam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// The file systems outputs may be written to: local paths, memfs://
	// (tests), gs:// and s3://.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
)

// isLocal reports whether name is a local path rather than the URL of a
// file system registered with Beam (gs://, s3://, memfs://, …).
func isLocal(name string) bool { return !strings.Contains(name, "://") }

// WriteOutput writes data to name, a local path or the URL of a file system
// registered with Beam's filesystem package (gs://, s3://, memfs://), so
// that a reader, or a bundle retried after a crash, sees the whole file or
// the one before it, never a part.
//
// A local file is written to a temporary file beside it, created 0666 minus
// the umask as os.Create does, and renamed over it; before that, temporaries
// of name left by processes of this host that are gone (killed, say) are
// removed: their names say they are this package's, for this output, and
// which process made them. An object store's object appears only when its
// upload completes, so it is written in place.
func WriteOutput(ctx context.Context, name string, data []byte) error {
	if isLocal(name) {
		return writeLocal(name, data)
	}
	fsys, err := filesystem.New(ctx, name)
	if err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	defer fsys.Close()
	w, err := fsys.OpenWrite(ctx, name)
	if err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	return nil
}

// ReadOutput reads name, a local path or a URL of a registered file system.
func ReadOutput(ctx context.Context, name string) ([]byte, error) {
	if isLocal(name) {
		return os.ReadFile(name)
	}
	fsys, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	return filesystem.Read(ctx, fsys, name)
}

// tempMarker is in the name of every temporary file this package writes,
// before the host and process that made it.
const tempMarker = ".lindibeam-"

// tempPrefix is the start of the temporaries of name made on this host.
func tempPrefix(name string) string {
	host, _ := os.Hostname()
	host = strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(host)
	return "." + filepath.Base(name) + tempMarker + host + "-"
}

// writeLocal writes data to a temporary file beside name and renames it
// over name.
func writeLocal(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	removeStale(name)
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix(name)+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	return nil
}

// removeStale removes the temporaries of name that a process of this host
// made and that is no longer running. A temporary of a running process, of
// another host (on a shared file system), or not named by this package is
// left alone: only those provably abandoned go.
func removeStale(name string) {
	prefix := tempPrefix(name)
	entries, err := os.ReadDir(filepath.Dir(name))
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !strings.HasSuffix(rest, ".tmp") || !e.Type().IsRegular() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || n == os.Getpid() || processRunning(n) {
			continue
		}
		err = os.Remove(filepath.Join(filepath.Dir(name), e.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
	}
}
