"""The tree on screen: the scene, its node items, the zoomable view, its overview and find bar."""
