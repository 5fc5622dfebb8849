"""MPTc-Bench's per-item scoring: the judge-based values (titles, quizzes, scores, preferences),
the OCR text-mask IoUs (App. B.5) and the edit-intensity study, Table 5 collection and plan loss."""
