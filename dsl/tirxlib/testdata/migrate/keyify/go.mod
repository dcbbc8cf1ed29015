module keyify
go 1.26
