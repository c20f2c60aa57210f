"""Semantic checks with retries: a check fails, the error goes back to the model, every attempt is kept.

Run: python examples/checks.py
"""

from pathlib import Path

from extractor import ExtractionError, Extractor, check
from schemas import Invoice

TEXT = (Path(__file__).parent / "data" / "invoice.txt").read_text()


class CheckedInvoice(Invoice):
    @check
    def total_is_the_sum(self) -> str | None:
        """Returning (or raising ValueError with) a message fails the attempt."""
        lines = sum(item.quantity * item.unit_price for item in self.line_items)
        if abs(lines - self.total) > 0.01 * max(1.0, self.total):
            return f"total {self.total} is not the sum of the line items ({lines:.2f})"
        return None


def no_free_lunch(invoice: Invoice) -> str | None:
    """A plain callable passed with checks=[...] works the same way."""
    return "an invoice with a zero total" if invoice.total == 0 else None


def main() -> None:
    extractor = Extractor()
    try:
        invoice, usage = extractor.extract(
            CheckedInvoice, TEXT, checks=[no_free_lunch], max_retries=2, max_tokens=400, with_usage=True,
            on_attempt=lambda a: print(f"attempt: {a.usage.completion_tokens} tokens, errors: {a.errors}"))
        print(invoice.model_dump_json(indent=2))
        print(f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens in "
              f"{usage.forward_passes} forward passes, {usage.seconds:.1f} s")
    except ExtractionError as err:  # every attempt failed: nothing is lost
        for attempt in err.attempts:
            print("failed attempt:", attempt.text[:80], attempt.errors, attempt.usage)


if __name__ == "__main__":
    main()
