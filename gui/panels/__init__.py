"""The window's panels: each shows one part of the controller's state and never reaches into another."""
