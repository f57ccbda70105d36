module realtalos/pause

go 1.26.8
