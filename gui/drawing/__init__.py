"""Drawing a tree with QtGui alone (no widgets): colours, type sizes, node and edge painting, images."""
