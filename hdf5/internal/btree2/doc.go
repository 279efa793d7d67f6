// Package btree2 reads HDF5 version 2 B-trees: a header (signature
// "BTHD") pointing at a root node, internal nodes ("BTIN") holding records
// and child pointers, and leaf nodes ("BTLF") holding records, every one
// protected by a Jenkins lookup3 checksum.
//
// The tree stores fixed-size records of one type (Type): link names and
// creation orders of dense groups (5, 6), attribute names and creation
// orders of dense attribute storage (8, 9), and the chunks of datasets
// indexed by a version 2 B-tree (10, 11). This package does not interpret
// records: Walk hands each one, in key order, to a callback as raw bytes,
// and Find descends the tree with a caller-supplied comparison.
//
// # Hostile files
//
// The depth, node size, record size and per-node record counts are
// checked against the limits the specification implies before anything
// is allocated; every node's signature, type and checksum are verified; a
// node reached twice (a loop or a shared subtree) and a tree holding more
// records than its header announces are errors.
//
// # Concurrency
//
// A Tree is safe for concurrent use; it caches decoded nodes.
package btree2
