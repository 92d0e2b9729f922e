"""The Algorithm panel's class weights and priors lines (issue 33, item 1): read when an edit
is finished, refused with the engine's message, and set back from a model's settings."""


def test_class_weight_line_reaches_the_params_and_problems(window):
    panel = window.config
    panel.class_weight.setText(" balanced ")
    panel.class_weight.editingFinished.emit()
    assert panel.params()["class_weight"] == "balanced" and panel.problem() is None
    panel.class_weight.setText("yes=-1")
    assert "class-weight: yes's value must be a number of at least 0" in panel.problem()
    panel.class_weight.setText("")
    panel.priors.setText("a=0.5")
    assert panel.problem() == "priors must add up to 1; they add up to 0.5"
    panel.set_params({"class_weight": "a=2.0", "priors": None})
    assert panel.class_weight.text() == "a=2.0" and panel.priors.text() == ""
    assert panel.class_weight.toolTip().startswith("Each row's weight times its class's")
