// Command rms writes, for every session of a dandiset, the RMS in µV of each
// channel of its raw ElectricalSeries over its first 10 s (times 0 to 10 s),
// with each electrode's location, to a CSV, and the sessions that failed,
// with their errors, to OUT.failed.jsonl:
//
//	go run ./examples/rms --out rms.csv dandi://dandi/000409
package main

import (
	"context"
	"flag"
	"log"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lindigo/lindi/beam/lindibeam"
)

// Row is a line of the CSV.
type Row struct {
	Session  string  `csv:"session"`
	Channel  int     `csv:"channel"`
	Location string  `csv:"location"`
	RMS      float64 `csv:"rms_uV"`
}

func init() {
	beam.RegisterFunction(microvolts)
	beam.RegisterType(reflect.TypeFor[Row]())
}

// microvolts makes a row of a channel's statistics (in volts, the unit of
// an ElectricalSeries).
func microvolts(st lindibeam.StatsRow) Row {
	return Row{st.Asset, st.Column, st.Electrode("location"), 1e6 * st.RMS}
}

// pipeline writes the CSV of the sessions of addresses to out.
func pipeline(s beam.Scope, out string, addresses ...string) {
	sessions, unlisted := lindibeam.Assets(s, addresses...)
	job := lindibeam.StatsJob{Series: "acquisition/ElectricalSeries", From: 0, To: 10}
	stats, failed := lindibeam.Stats(s, job, sessions)
	lindibeam.WriteCSV(s, out, beam.ParDo(s, microvolts, stats))
	lindibeam.WriteJSONL(s, out+".failed.jsonl", beam.Flatten(s, unlisted, failed))
}

func main() {
	out := flag.String("out", "rms.csv", "the CSV to write (a path, gs:// or s3:// URL)")
	flag.Parse()
	beam.Init()
	p, s := beam.NewPipelineWithRoot()
	pipeline(s, *out, flag.Args()...)
	if err := beamx.Run(context.Background(), p); err != nil {
		log.Fatal(err)
	}
}
