package hugemem

// Number is the set of element types Slice allocates: types without
// pointers, whose memory the garbage collector need not scan.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}
