package shuffle_test

import (
	"fmt"

	"github.com/lindigo/lindi/codecs/internal/shuffle"
)

func ExampleUnshuffle() {
	// Three 2-byte elements, byte-shuffled: low bytes, then high bytes,
	// then one trailing byte that is not a whole element.
	src := []byte{0x01, 0x02, 0x03, 0xA1, 0xA2, 0xA3, 0xFF}
	dst := make([]byte, len(src))
	shuffle.Unshuffle(dst, src, 2)
	fmt.Printf("% x\n", dst)
	// Output: 01 a1 02 a2 03 a3 ff
}

func ExampleBitUnshuffle() {
	// Eight 1-byte elements; bit row 0 says element 1 has bit 0 set.
	src := []byte{0b10, 0, 0, 0, 0, 0, 0, 0}
	dst := make([]byte, len(src))
	if err := shuffle.BitUnshuffle(dst, src, 1); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [0 1 0 0 0 0 0 0]
}
