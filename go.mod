module github.com/lindigo/lindi

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/pierrec/lz4/v4 v4.1.33
	golang.org/x/image v0.30.0
	golang.org/x/sync v0.25.0
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/text v0.28.0 // indirect
