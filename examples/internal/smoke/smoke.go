// Package smoke holds what the examples' smoke tests share.
package smoke

import (
	"image"
	"image/png"
	"os"
	"testing"
)

// PNG decodes the PNG at path and checks that it has the given size and is
// not blank (its pixels are not all one colour).
func PNG(t *testing.T, path string, w, h int) image.Image {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s is %d×%d, want %d×%d", path, b.Dx(), b.Dy(), w, h)
	}
	first := img.At(0, 0)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.At(x, y) != first {
				return img
			}
		}
	}
	t.Fatalf("%s is blank", path)
	return img
}
