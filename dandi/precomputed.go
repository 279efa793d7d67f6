package dandi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// precomputed fetches the service's LINDI file of the blob asset as and
// checks it; why says what was wrong ("" when it may be used). The asset's
// metadata (its S3 URL) is read meanwhile. The service is sent no key.
func (c *config) precomputedDoc(ctx context.Context, base string, as *Asset) (doc []byte, u, why string) {
	seg := as.Instance
	u = base + "/" + seg + "/dandisets/" + as.Dandiset + "/assets/" + as.ID + "/nwb.lindi.json"
	var g errgroup.Group
	var ferr error
	g.Go(func() error {
		doc, ferr = c.fetch(ctx, u, "")
		return nil
	})
	var merr error
	if as.ContentURL == nil {
		merr = c.metadata(ctx, as)
	}
	g.Wait()
	var se *statusError
	switch {
	case errors.As(ferr, &se):
		return nil, u, fmt.Sprintf("HTTP %d from %s", se.status, u)
	case ferr != nil:
		return nil, u, ferr.Error()
	case merr != nil:
		return nil, u, "the asset's metadata: " + merr.Error()
	}
	allowed := append([]string{as.DownloadURL()}, as.ContentURL...)
	if err := checkRefs(doc, allowed); err != nil {
		return nil, u, err.Error()
	}
	return doc, u, ""
}

// lindiDoc is the part of a LINDI JSON document checkRefs reads.
type lindiDoc struct {
	Refs      map[string]json.RawMessage `json:"refs"`
	Templates map[string]string          `json:"templates"`
	Gen       json.RawMessage            `json:"gen"`
}

// checkRefs checks that every remote reference of the LINDI document doc
// (chunk refs, after template expansion, and _EXTERNAL_ARRAY_LINK urls)
// names one of the allowed URLs: a precomputed file may only point at the
// asset's own bytes.
func checkRefs(doc []byte, allowed []string) error {
	var d lindiDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return fmt.Errorf("not LINDI JSON: %v", err)
	}
	if d.Refs == nil {
		return errors.New("not LINDI JSON: no refs")
	}
	if len(d.Gen) > 0 && string(d.Gen) != "null" && string(d.Gen) != "[]" {
		return errors.New("it generates refs (gen)")
	}
	ok := func(u string) error {
		u, err := substitute(u, d.Templates)
		if err != nil {
			return err
		}
		if !slices.Contains(allowed, u) {
			return fmt.Errorf("a ref points at %q, not the asset's blob", u)
		}
		return nil
	}
	for key, raw := range d.Refs {
		if err := checkRef(key, raw, ok); err != nil {
			return err
		}
	}
	return nil
}

func checkRef(key string, raw json.RawMessage, ok func(string) error) error {
	t := bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(t) > 0 && t[0] == '[':
		u, err := firstString(t[1:])
		if err != nil {
			return fmt.Errorf("ref %q is not [url, offset, length]: %v", key, err)
		}
		return ok(u)
	case len(t) > 0 && t[0] == '{':
		if mayLink(t) {
			return checkLink(key, raw, ok)
		}
	case len(t) > 0 && t[0] == '"' && strings.HasSuffix(key, ".zattrs"):
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("ref %q: %v", key, err)
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") && mayLink([]byte(s)) {
			return checkLink(key, json.RawMessage(s), ok)
		}
	}
	return nil
}

// mayLink reports whether a JSON object may hold an _EXTERNAL_ARRAY_LINK:
// it names one in any case, or has escapes that could spell one. Most
// objects (a group's attributes) are passed over without decoding.
func mayLink(obj []byte) bool {
	return bytes.Contains(obj, []byte(`\u`)) || bytes.Contains(bytes.ToLower(obj), []byte("_external_array_link"))
}

// firstString reads the string that starts the rest of a JSON array, b
// (after its "["): quickly when it has no escapes.
func firstString(b []byte) (string, error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '"' {
		return "", errors.New("no URL first")
	}
	end := bytes.IndexByte(b[1:], '"')
	if end >= 0 && bytes.IndexByte(b[1:end+1], '\\') < 0 {
		s := b[1 : end+1]
		for _, c := range s {
			if c < 0x20 {
				return "", errors.New("control character in URL")
			}
		}
		if !utf8.Valid(s) {
			return "", errors.New("invalid UTF-8 in URL")
		}
		return string(s), nil
	}
	var ref []json.RawMessage
	if err := json.Unmarshal(append([]byte("["), b...), &ref); err != nil || len(ref) == 0 {
		return "", errors.New("not an array")
	}
	var u string
	if err := json.Unmarshal(ref[0], &u); err != nil {
		return "", errors.New("no URL first")
	}
	return u, nil
}

// checkLink checks the _EXTERNAL_ARRAY_LINK of an attributes object.
func checkLink(key string, raw json.RawMessage, ok func(string) error) error {
	var attrs struct {
		Link *struct {
			URL string `json:"url"`
		} `json:"_EXTERNAL_ARRAY_LINK"`
	}
	if err := json.Unmarshal(raw, &attrs); err != nil {
		return fmt.Errorf("ref %q: %v", key, err)
	}
	if attrs.Link != nil {
		return ok(attrs.Link.URL)
	}
	return nil
}

// substitute expands the templates of u as package store does: one level,
// every name defined.
func substitute(u string, tmpl map[string]string) (string, error) {
	for {
		i := strings.Index(u, "{{")
		if i < 0 {
			return u, nil
		}
		j := strings.Index(u[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated template in %q", u)
		}
		val, ok := tmpl[u[i+2:i+j]]
		if !ok || strings.Contains(val, "{{") {
			return "", fmt.Errorf("template %q undefined or nested", u[i:i+j+2])
		}
		u = u[:i] + val + u[i+j+2:]
	}
}
