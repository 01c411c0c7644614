module github.com/tracefmt/tracefmt

go 1.23

require github.com/google/go-cmp v0.7.0
