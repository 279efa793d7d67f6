package dandi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// precomputed fetches the service's LINDI file of the blob asset as and
// checks it; why says what was wrong ("" when it may be used). The asset's
// metadata (its S3 URL) is read meanwhile. The service is sent no key.
func (c *config) precomputed(ctx context.Context, base string, as *Asset) (doc []byte, u, why string) {
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
		for name, v := range d.Templates {
			u = strings.ReplaceAll(u, "{{"+name+"}}", v)
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
	t := strings.TrimLeft(string(raw), " \t\r\n")
	switch {
	case strings.HasPrefix(t, "["):
		var ref []json.RawMessage
		if err := json.Unmarshal(raw, &ref); err != nil || len(ref) == 0 {
			return fmt.Errorf("ref %q is not [url, offset, length]", key)
		}
		var u string
		if err := json.Unmarshal(ref[0], &u); err != nil {
			return fmt.Errorf("ref %q has no URL", key)
		}
		return ok(u)
	case strings.HasPrefix(t, "{"):
		return checkLink(key, raw, ok)
	case strings.HasPrefix(t, `"`) && strings.HasSuffix(key, ".zattrs"):
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.Contains(s, "_EXTERNAL_ARRAY_LINK") {
			return checkLink(key, json.RawMessage(s), ok)
		}
	}
	return nil
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
