module recordprog

go 1.22
