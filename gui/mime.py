"""Drag-and-drop formats shared by the canvas and the panels (so neither imports the other)."""

#: Rows of the data table, as comma-separated source row indices.
ROWS_MIME = "application/x-arbor-rows"
#: One node of the tree on screen, as its id.
NODE_MIME = "application/x-arbor-node"
