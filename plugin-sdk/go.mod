module github.com/aiperf-go/aiperf/plugin-sdk

go 1.26
