module github.com/tracefmt/tracefmt/bench

go 1.23

require github.com/tracefmt/tracefmt v0.0.0

require github.com/golang/snappy v1.0.0

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/klauspost/compress v1.18.0
)

replace github.com/tracefmt/tracefmt => ../
