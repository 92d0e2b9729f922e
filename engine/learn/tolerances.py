"""The references' own tolerances, in one place for the numpy scorers and the compiled kernels.

Ties decide trees, so comparisons use exactly what Weka and scikit-learn use:
``WEKA_EPS`` (Weka's ``Utils.SMALL``) for ID3/C4.5 comparisons, ``C45_VALUE_EPS``
for what C4.5 counts as distinct numeric values, and ``CART_VALUE_EPS``
(scikit-learn's ``FEATURE_THRESHOLD``) for CART. The rules that use them are in
:mod:`engine.learn.rules`.
"""

WEKA_EPS = 1e-6
C45_VALUE_EPS = 1e-5
CART_VALUE_EPS = 1e-7
#: Attributes whose scores are this close to the best count as tied; the first one wins.
CHOICE_EPS = 1e-12
#: J48 keeps attributes whose gain is at least the average gain less this.
GAIN_AVERAGE_SLACK = 1e-3
#: A regression node whose impurity is at most this is pure (float64 machine epsilon).
DOUBLE_EPS = 2.220446049250313e-16
