"""Drive assessment (issue 16): PASS / PASS WITH WARNINGS / FAIL / NOT ASSESSED from evidence and tests."""
from app.assess.engine import AssessParams, AssessResult, DriveAssessment, Step
from app.assess.rules import EXIT_CODES, Outcome, Verdict

__all__ = ["AssessParams", "AssessResult", "DriveAssessment", "Step", "Outcome", "Verdict", "EXIT_CODES"]
