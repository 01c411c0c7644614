module github.com/tracefmt/tracefmt

go 1.23
