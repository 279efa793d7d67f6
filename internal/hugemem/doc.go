// Package hugemem allocates the large byte slices of a read (its output,
// the fetched chunk bytes) so that the kernel backs them with transparent
// huge pages where it can.
//
// Decoding into fresh memory faults it in one 4 KiB page at a time; on a
// local read of tens of MB those faults were a third of the CPU time
// (measured with getrusage: 18,500 faults and 480 ms of CPU for the 46 MB
// ephys read of the shared benchmark, 7,800 and 330 ms with the advice).
// Alloc is a hint only: where huge pages are unavailable it is make.
// It is safe for concurrent use.
package hugemem
