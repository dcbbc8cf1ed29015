module github.com/tilels/tilels

go 1.26
