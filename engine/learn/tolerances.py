"""The references' own tolerances, in one place for the numpy scorers and the compiled kernels.

Ties decide trees, so comparisons use exactly what Weka and scikit-learn use:
``WEKA_EPS`` (Weka's ``Utils.SMALL``) for ID3/C4.5 comparisons, ``C45_VALUE_EPS``
for what C4.5 counts as distinct numeric values, and ``CART_VALUE_EPS``
(scikit-learn's ``FEATURE_THRESHOLD``) for CART.
"""

WEKA_EPS = 1e-6
C45_VALUE_EPS = 1e-5
CART_VALUE_EPS = 1e-7
