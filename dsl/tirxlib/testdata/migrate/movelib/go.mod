module splittool
go 1.26
