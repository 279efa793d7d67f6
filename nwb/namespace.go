package nwb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// Namespace is an extension's specification as pynwb caches it in a file,
// under /specifications/<Name>/<Version>/: Files maps each source name to
// its JSON text, "namespace" (a {"namespaces": [...]} document declaring
// Name and Version) and the sources it lists ("ndx-foo.extensions", …).
type Namespace struct {
	Name, Version string
	Files         map[string]string
}

// builtin are the namespaces every NWB file caches: an amendment never
// writes a version of its own of those (readers would switch to it).
var builtin = map[string]bool{"core": true, "hdmf-common": true, "hdmf-experimental": true}

// AddNamespace caches an extension's specification in the file, so that
// readers without the extension installed (pynwb loads cached namespaces)
// can read the objects of its types, and points the root's .specloc at
// /specifications when it does not already. A namespace already cached at
// that version is left as it is. The core and hdmf namespaces are refused:
// the source's own versions stay the only ones.
func (a *Amendment) AddNamespace(ctx context.Context, ns Namespace) error {
	if err := ns.check(); err != nil {
		return err
	}
	path := "specifications/" + ns.Name + "/" + ns.Version
	if _, err := a.h.Get(ctx, path); err == nil {
		return nil
	}
	if err := a.writeNamespace(ctx, ns, path); err != nil {
		return undo(ctx, a.h.Root(), "specifications/"+ns.Name+"/"+ns.Version, err)
	}
	return nil
}

func (a *Amendment) writeNamespace(ctx context.Context, ns Namespace, path string) error {
	g, err := a.h.Root().RequireGroup(ctx, path)
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(anyMap(ns.Files)) {
		if _, err := h5.CreateDatasetFrom(ctx, g, name, []string{ns.Files[name]}, []int{}, nil); err != nil {
			return err
		}
	}
	if !a.h.Root().Attrs().Has(".specloc") {
		return a.h.Root().SetAttr(ctx, ".specloc", h5.Reference{Path: "/specifications"})
	}
	return nil
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// check validates a namespace before anything is written.
func (ns Namespace) check() error {
	what := fmt.Sprintf("namespace %q version %q", ns.Name, ns.Version)
	if err := checkNewName(ns.Name); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := checkNewName(ns.Version); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if builtin[ns.Name] {
		return fmt.Errorf("%w: %s: the file's own %s namespace is the only one it caches", ErrSpec, what, ns.Name)
	}
	text, ok := ns.Files["namespace"]
	if !ok {
		return fmt.Errorf("%w: %s has no \"namespace\" file", ErrSpec, what)
	}
	var doc struct {
		Namespaces []struct {
			Name, Version string
			Schema        []struct{ Source, Namespace string }
		}
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return fmt.Errorf("%w: %s: its namespace file is not JSON: %v", ErrSpec, what, err)
	}
	found := false
	for _, n := range doc.Namespaces {
		if n.Name != ns.Name {
			continue
		}
		if n.Version != ns.Version {
			return fmt.Errorf("%w: %s: its namespace file gives version %q", ErrSpec, what, n.Version)
		}
		found = true
		for _, s := range n.Schema {
			if s.Source != "" {
				if _, ok := ns.Files[s.Source]; !ok {
					return fmt.Errorf("%w: %s lists the source %q, which Files lacks", ErrSpec, what, s.Source)
				}
			}
		}
	}
	if !found {
		return fmt.Errorf("%w: %s: its namespace file does not declare it", ErrSpec, what)
	}
	for name, text := range ns.Files {
		if err := checkNewName(name); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if !json.Valid([]byte(text)) {
			return fmt.Errorf("%w: %s: file %q is not JSON", ErrSpec, what, name)
		}
	}
	return nil
}

// checkNamespace refuses a type of a namespace the file does not cache.
func (a *Amendment) checkNamespace(ctx context.Context, ns, what string) error {
	if builtin[ns] {
		return nil
	}
	if _, err := a.h.Get(ctx, "specifications/"+ns); err != nil {
		return fmt.Errorf("%w: %s: the file caches no namespace %q (AddNamespace it first)", ErrSpec, what, ns)
	}
	return nil
}

// AddGroup adds a typed group of any type, such as an extension's, with
// the given attributes (namespace, neurodata_type and a new object_id set
// here), and returns it for its members to be written with package h5.
// The namespace must be core, hdmf-common or one the file caches
// (AddNamespace).
func (c *Container) AddGroup(ctx context.Context, name, namespace, typ string, attrs map[string]any) (*h5.Group, error) {
	what := c.g.Path() + "/" + name
	if err := checkFree(c.g, name); err != nil {
		return nil, err
	}
	if typ == "" || strings.ContainsAny(typ, "/") {
		return nil, fmt.Errorf("%w: %s: neurodata_type %q", ErrSpec, what, typ)
	}
	if err := c.a.checkNamespace(ctx, namespace, what); err != nil {
		return nil, err
	}
	g, err := newGroup(ctx, c.g, name, namespace, typ, attrs)
	if err != nil {
		return nil, undo(ctx, c.g, name, err)
	}
	return g, nil
}
