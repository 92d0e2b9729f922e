"""The data table being edited: the document, its undoable commands and the Qt models over it."""
