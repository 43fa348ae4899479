"""The four analyses, as the home page lists them."""

ANALYSES = (
    {
        "title": "ADePT sensitivity",
        "page": "pages/1_ADePT_sensitivity.py",
        "paper": "Habernal (2021), When differential privacy meets NLP: The devil is in the detail. EMNLP.",
        "claim": "L2-clipped vectors with Laplace noise calibrated to 2C are ε√n-DP, not ε-DP: "
                 "the L1 sensitivity of L2 clipping is 2C√n.",
        "ready": True,
    },
    {
        "title": "Metric DP over word embeddings",
        "page": "pages/2_Metric_DP.py",
        "paper": "Feyisetan, Balle, Diethe & Drake (2020), Calibrating mechanisms for privacy "
                 "preserving text analysis. PrivateNLP @ WSDM.",
        "claim": "The same ε means very different plausible deniability (N_w, S_w) on different "
                 "embeddings: calibrate ε per embedding, not by its number.",
        "ready": True,
    },
    {
        "title": "HoHo attack on OME",
        "page": "pages/3_HoHo_attack.py",
        "paper": "Salem & Zanella-Béguelin (2021), HoHo: a hop-on hop-off attack against optimized multiple encoding.",
        "claim": "OME's even bits survive perturbation: an attacker links and reconstructs sentences, "
                 "and the true bound is r·l·ln(λ) + ε/2, not ε.",
        "ready": True,
    },
    {
        "title": "Partial sensitivity",
        "page": "pages/4_Partial_sensitivity.py",
        "paper": "Mueller et al. (2022), Partial sensitivity analysis in differential privacy.",
        "claim": "The gradient of the gradient norm shows which input attributes drive each "
                 "individual's privacy loss, for a query and for SGD vs. DP-SGD.",
        "ready": True,
    },
)
