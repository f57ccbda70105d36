module realtalos/runc-nores

go 1.26.8
