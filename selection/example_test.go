package selection_test

import (
	"fmt"

	"github.com/lindigo/lindi/selection"
)

// Read rows 1 and 2, every other column, of a 4×6 array stored in 2×4
// chunks: each touched chunk gives the copy runs from the decoded chunk to
// the output.
func Example() {
	sel, err := selection.Parse("1:3, ::2")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sel.Resolve([]int{4, 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("output shape", r.Shape())
	p, err := r.Plan([]int{2, 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	for cp := range p.Chunks() {
		fmt.Print("chunk ", cp.Coords, ":")
		cp.Runs(func(src, dst, n int) bool {
			fmt.Printf(" %d→%d×%d", src, dst, n)
			return true
		})
		fmt.Println()
	}
	// Output:
	// output shape [2 3]
	// chunk [0 0]: 4→0×1 6→1×1
	// chunk [0 1]: 4→2×1
	// chunk [1 0]: 0→3×1 2→4×1
	// chunk [1 1]: 0→5×1
}

func ExampleParse() {
	sel, err := selection.Parse(" 10:200:3 ,..., [1,4,9] ")
	fmt.Println(sel, err)
	_, err = selection.Parse("1:x")
	fmt.Println(err)
	// Output:
	// 10:200:3, ..., [1, 4, 9] <nil>
	// selection: parse "1:x": at offset 2: unexpected "x"
}

func ExampleSlice() {
	sel := selection.Selection{
		selection.Slice(selection.None, 2, -1), // "::-1" stopping before 2
		selection.Index(-1),
	}
	r, err := sel.Resolve([]int{5, 3})
	fmt.Println(sel, r.Shape(), err)
	// Output:
	// :2:-1, -1 [2] <nil>
}

func ExampleSelection_Resolve() {
	sel := selection.Selection{selection.List(0, 2), selection.List(1, 3)}
	r, err := sel.Resolve([]int{3, 4})
	fmt.Println(r.Shape(), err) // orthogonal: a 2×2 block, not numpy's 2 elements
	_, err = selection.Selection{selection.Index(3)}.Resolve([]int{3, 4})
	fmt.Println(err)
	// Output:
	// [2 2] <nil>
	// selection: index out of range: index 3 is out of bounds for axis 0 with size 3
}

func ExampleChunkPlan_Contiguous() {
	sel, _ := selection.Parse("2:6, :")
	r, _ := sel.Resolve([]int{8, 3})
	p, _ := r.Plan([]int{2, 3})
	for cp := range p.Chunks() {
		dst, ok := cp.Contiguous()
		fmt.Println(cp.Coords, dst, ok)
	}
	// Output:
	// [1 0] 0 true
	// [2 0] 6 true
}
