module realtalos/mkimage

go 1.26.8
