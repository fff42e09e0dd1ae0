"""Course machinery: release, graded checks, quizzes and grading."""
