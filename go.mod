module github.com/nocgo/cuda

go 1.26.8
