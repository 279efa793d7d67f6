package selection

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Selection
		str  string
	}{
		{"...", Selection{Ellipsis()}, "..."},
		{"()", Selection{}, "()"},
		{" ( ) ", Selection{}, "()"},
		{"5", Selection{Index(5)}, "5"},
		{"-8:", Selection{Slice(-8, None, 1)}, "-8:"},
		{":", Selection{All()}, ":"},
		{"::", Selection{All()}, ":"},
		{"::1", Selection{All()}, ":"},
		{"None:None:None", Selection{All()}, ":"},
		{"::-1", Selection{Slice(None, None, -1)}, "::-1"},
		{"4361:5817:13, 22:22:2", Selection{Slice(4361, 5817, 13), Slice(22, 22, 2)}, "4361:5817:13, 22:22:2"},
		{":, -14", Selection{All(), Index(-14)}, ":, -14"},
		{"[1, 4, 9], :", Selection{List(1, 4, 9), All()}, "[1, 4, 9], :"},
		{"[True, False, True]", Selection{Mask(true, false, true)}, "[True, False, True]"},
		{"[true,false]", Selection{Mask(true, false)}, "[True, False]"},
		{"10:200:3, ..., [1, 4, 9]", Selection{Slice(10, 200, 3), Ellipsis(), List(1, 4, 9)}, "10:200:3, ..., [1, 4, 9]"},
		{"\t1 : 2 : 3 ,\n[ -1 ,+2, ] ", Selection{Slice(1, 2, 3), List(-1, 2)}, "1:2:3, [-1, 2]"},
		{"5,", Selection{Index(5)}, "5"},
		{"[]", Selection{List()}, "[]"},
		{"[5]", Selection{List(5)}, "[5]"},
		{":5", Selection{Slice(None, 5, 1)}, ":5"},
		{"1::0", Selection{Slice(1, None, 0)}, "1::0"},
		{"+3", Selection{Index(3)}, "3"},
		{"-9223372036854775807", Selection{Index(-9223372036854775807)}, "-9223372036854775807"},
		{"9223372036854775807:", Selection{Slice(9223372036854775807, None, 1)}, "9223372036854775807:"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse = %#v, want %#v", got, tt.want)
			}
			if got.String() != tt.str {
				t.Fatalf("String() = %q, want %q", got.String(), tt.str)
			}
			again, err := Parse(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("round trip of %q: %#v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{"", 0, `empty selection: use "()" or "..." for everything`},
		{"   ", 3, `empty selection: use "()" or "..." for everything`},
		{"1,,2", 2, `expected an index, slice, list or "...", found ","`},
		{",", 0, `expected an index, slice, list or "...", found ","`},
		{"1 2", 2, `expected "," between items, found "2"`},
		{"abc", 0, `unexpected "abc"`},
		{"1:x", 2, `unexpected "x"`},
		{"..", 0, `expected "...", found "."`},
		{"[1, 2", 0, `unclosed "["`},
		{"[1 2]", 3, `expected "," or "]" in list, found "2"`},
		{"[1, True]", 4, `list mixes integers and booleans at "True"`},
		{"[True, 1]", 7, `list mixes booleans and integers at "1"`},
		{"[yes]", 1, `expected an integer or True/False in list, found "yes"`},
		{"[:]", 1, `expected an integer or True/False in list, found ":"`},
		{"99999999999999999999", 0, `integer "99999999999999999999" out of range`},
		{"-9223372036854775808", 0, `integer "-9223372036854775808" out of range`},
		{"1.5", 1, `unexpected "." after integer "1"`},
		{"2e3", 1, `unexpected "e3" after integer "2"`},
		{"-", 0, `expected digits after sign, found end of text`},
		{"- 1", 0, `expected digits after sign, found " "`},
		{"(", 1, `expected ")" to close "()", found end of text`},
		{"(), 1", 2, `unexpected "," after "()"`},
		{"1:2:3:4", 5, `expected "," between items, found ":"`},
		{"5]", 1, `expected "," between items, found "]"`},
		{"Nonesuch:", 0, `unexpected "Nonesuch"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SyntaxError", err)
			}
			if se.Offset != tt.offset || se.Msg != tt.msg || se.Text != tt.in {
				t.Fatalf("got offset %d %q, want offset %d %q", se.Offset, se.Msg, tt.offset, tt.msg)
			}
		})
	}
}

func TestItemString(t *testing.T) {
	tests := []struct {
		it   Item
		want string
	}{
		{Item{}, ":"},
		{All(), ":"},
		{Slice(None, None, None), ":"},
		{Slice(2, None, None), "2:"},
		{Slice(None, -3, 2), ":-3:2"},
		{Slice(0, 0, -1), "0:0:-1"},
		{Index(-7), "-7"},
		{Ellipsis(), "..."},
		{List(3, 3, -1), "[3, 3, -1]"},
		{Mask(false, true), "[False, True]"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.it.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListCopies(t *testing.T) {
	idx := []int{1, 2}
	m := []bool{true, false}
	l, k := List(idx...), Mask(m...)
	idx[0], m[0] = 9, false
	if l.String() != "[1, 2]" || k.String() != "[True, False]" {
		t.Fatalf("List/Mask alias their arguments: %s %s", l, k)
	}
}
