"""Every code point's General_Category as ranges, for `\\p{...}` in patterns: decoded from a table stored for one
Unicode version (a few KiB), because scanning 1.1 million code points with `unicodedata` costs a third of a second
on the first `\\p{...}` a process reads (a first request's compile); scanned where Python's Unicode version differs.

Regenerate the stored table after a Python upgrade changes `unicodedata.unidata_version`:
    python -m extractor.lang.categories   # prints the three constants below
"""

from __future__ import annotations

import base64
import sys
import unicodedata
import zlib
from array import array
from functools import lru_cache

MAX_CP = 0x10FFFF
Ranges = tuple[tuple[int, int], ...]
"""Sorted, disjoint, inclusive code point ranges."""

UNIDATA_VERSION = "14.0.0"
NAMES = "Cc Cf Cn Co Cs Ll Lm Lo Lt Lu Mc Me Mn Nd Nl No Pc Pd Pe Pf Pi Po Ps Sc Sk Sm So Zl Zp Zs"
RUNS = (
    "eNrtW82PHUcR36mZ6X5vdubNe8/b72PsXa8dx7FjE+fLdiJAMaAERYlCQCgoCCEQAQkSAQckDlxQOHCAG7fckFDOnIhyQwjEX0DECQUuXDhwQpGQ"
    "AlU91e/VVnpm3ybeZJNYvf1mpj+rq6p/Vf2x+1tbWwnGVD1jETAW/Ez52fSUj+WdE+9ZT90+GmLviaJ/zk+LccHvg3fR34cpwgdc/6SNPY2kg8rL"
    "IumyHhxRD6FjHoEql75L/f+gZNrVTvoRn1MyWqUXcEQse5yfpzFOuU6JcYQx5/Zl+QnGHx5BNqmiB3rkBKIPeg4x3iXy0vdBtnnPeCg+hPH+E6YD"
    "+YccJ48DL+BjhAEnOV4UsjAYL/fYn090yFCWGTBWZQJPtrntNIKF2wpv9vmdfEbHT4lL31LYmgjaJb2Z8D1lv6MID/aYZirzvKBpxPXPMdZpzJRj"
    "mQk8H6pyYf7X/L2M+BnbXG4hxhPaNszXIJtQJvDqRoeNHUR8FSv88cCfUKdWZQeiXBij5nvaYTcyVVfriLY3qaIJxNj78F7KP+uhFSJPiPh9sg1p"
    "z6yy11ataxKht7JdrQtddOURevIeXxGEzKBDnlbp0lFkCxvYri4Z28g8jMlYyq5QbRvF/6zHN0+VvFL2kTLFrzSyZgXFo5HADBPxO1Klw3rtOO7x"
    "2eVYbIQvSYSfhZCJ7cDfLlqKQ2SYd+gVCPpMB22FSKtEutb3y2qc2SF7B5mac1pnhj06PeXyCzX3EjEmrU+6/4HQR6nTpfArQeGBUXIIde+O8D1X"
    "GJ4oWUkeQsTfNQojM2EHUoHhUq/CeIoj+mdhPBe4n5EaQ6BvW5STfDCqXCb4ckWtpU1ExwJfjLLvmdIfKduM9THpsSGFmv8XI/IBplHy8snkIKbZ"
    "Djy8rL7PbW1WL8juUZX+OYFfpBs7/D4W/HkuMl9fgoPrQr2/Rm08JebBgGmbCv5Qf6cUBgy5DPC8qCKYSukPK5swEPnbPRgAYlxS/hofpH6Edeh1"
    "7itg3nkl2ye4ztmIr6J9GRPBrEDbntL/q1yuUfYsZRrmSq/D+/XIfkHXXDTKv9A8sgojRsImPSDGca3DBuSqv1TYn4C9w4gPshfxBzS/rkZstsap"
    "4K9e4PeB8sVyMXdTIQcj9NIKbElFO6G/KuLPmQ7fKme6HxP1zjN+3bqzdrwTjyEO7/DgxMhhILDFCIySMZZ/WNuh7qijzRAlHmeR9X0ayddr70zt"
    "B+RqvZR0nGmE/QjTcx6SRM7I8ogeZxHMT9Tej16vJMpfBWGPu3y5RGB8yn5Xzd+SD6VYNycd5znQs/+d9+xL6H39LNIHKN8+6+DtWPg1uo2M6+cd"
    "8gPlT5yN7HmE9DKJ6+1OxF/9orD5tI91iXnxOH9v877dpzA+w/sKrymduME68wP+fus9zNM9ttG5GtOm9YnH9PKzY8SSxyJp+1LmSbu2dELP7+H3"
    "UO67vP68/5Czyi49BOUbpncw/kSdn5hDzklzNce71qyPqPk6EntCw8he0lGf+4fcoejyZ+A9ngHlam8li2D+UfT6vFgLP8824Q1OKyP7VMd9LgaC"
    "X1lk/7XLFj3Xs8/+1cg5RNjT+LqyJQXL9gKPfyxwNKyzBmLPeZ/T7+HvW5jx+2W7LnJfasv9OGv7vsnjuiTwp0zWtI2FXHc+AvM5jfgvHwSmgNjv"
    "kOdIc7WOf7fj+7jGwW2a6+83j/ND7lBsGrMN72TE4qIHy2zknCSJ7J1JbDaRc8CHuUzYP3pQnMsM1P7iNLKukPtrZ0SdOfu38tx6V63FrilclftX"
    "lVq3ZJE9/iHn5eL8xEQwfhg5i0oiZwNjtZep5fFgxJ+EjjOjhVpfbHfs2UNkfxbUM+aLXBHyHSo+PstrIei5e6D3jn9zpbVlc24j7IF6hqGt+n7S"
    "lv8e+1OWbV+uZFKovcP8kHsQL/F+O/H+xeTgWuMWl7uhfKpy66A9tJFzn3HH2fXt8E+yyHnrpvgUm8+Z4NPPO+6VHfe94b52w30WYD8n7dBTiNzv"
    "7OKfvm8CQq6BvlMd5/cj9kl/IvZoMqYxnPtc57SJ8gkrhT/hns7LAp8eEOdLp8W5YSbOlCSW5DwnwlzYE2O9IPA1lL2X/btLvO6X8/CC2NfPuMyA"
    "cXpb7QXVHfcQ+vLpfOxm0o5jxv0OGK/Cuupega+PR+zG1cjZBIiz9ET4TmFP5CynDXldfkqdd+ZMj8TeRsyLW7xek3Yi2Kn7ImdqubhXJfN21flV"
    "IvA1PHfFeHfFXasgwzNq3oa6N7is5bEEG3qKyw3YhlpxN9UyXj/Jvv9DrKMPcZ5ROkTyupis1xv3dtxJeIZpL4Q8ZqwbmeD3VPDpIu+rWNbxeWSP"
    "/TrrVRjDjjqPl2uzVGBH7J6TxE7ZxlKcowV9uCB0YaD8An2/467IOjG83y8wAsTYs479VY3DO8zDqbqflkbuHoX59JmOc2w5Rwthu65F9qGLyL29"
    "o9xLitleLY80csdH7pvKuwOU9gvWh1TQou9I55F7XmFse0IepuNudew+HLX3KvNJ6pWuNxdp50Vfg4isUoGdgdcVz90rG+5BhfPlG+KOpP4/iFzs"
    "IYC6v/M6Y2sa2Qt6gTFoX5wvl2osoO4NJArXYUN/KBW+9ROij3t6zkx0PC30+lJEvoPI/ZfAj/vUvRS5J1MxVtpkzaO7e+7wJUIHC5ZnkMmemjdd"
    "dyCfjKRf7FkL2Yi+msjZ+X7P3Ewi9ydvJOv7JSG+JnDEiXsBE8HDV5DI74gzhHAP448Yn8aGvynupl3L1pj5Z2z085jx+rmtrUdhbcf1muwLav2y"
    "p9ZqBc89G7HLibpvFXjnuCyN97ew1v0wp7/N93FkOzeFXarE+kGfowUf8q15y683staO0pj/eX7dppb5Xcnalk2EHv8S0zOs/KLQ0VT4E0UH9n5t"
    "2uo6CFv7Iz4P+o/YMwROk/61Ufc+LPOd2v008++zQj9fYdtFmPEV7mvJ641GRCvuBzZqrQAd9xszoetZxx2dbdGetj8DVbaJ+Ae5widZ9ijxjPAx"
    "EvE0x5Am+UZ7B/Ryk8f0oBj3SPmttRgvvT+brecHyfDvYvwTde4obf5fhO9lxT3VQsmJ9qP3RHtXhY0KdLyZrfvIIusyev5J3S26zHb3/NbBuhI7"
    "JkjcJyN7WU+LtRm1/wfR7+lD/kew6FmXmw3W7OmG/wu76f/QajzJOmgohAxyZfdCergnOErWcnpBndPXSi53c9uES7/mddQuf18V61orsNEwZvyX"
    "+/8rtM+x2J9LGa9KPhey6jyoFt+PKFsY1rV7as3y5WT9P3sg+JALPR6KdZm8e1GI9gfijiaV/5WwEYEfBgl789XWrjw6bsv+jft9edbS8AB2dBYJ"
    "2sPEf2BHT6FB+t2/itV5+jcw/hTjv4k3b29tvf2/tn54bu26uZtN3dJNXIW/w5mbLsaLfLacLimvcYvG7iyTZtEs60XuFrU9Vbvhcpgv8+EJD5b+"
    "Bjn/HR4Gt7v/3CxCKCnBLIY5mNwNYTHEHwy5j71huWl3Tbk9zE9+wGEbl7sJNHMoJ6XzASxYB8kSlbEpXeKssWXlbGkxJk1pyqa0lW2oDCZi8dJC"
    "ZUvTOAPlHF98AIcZ9AN2YSGB0poyKQtbFqUt8Keguqjm2HhBhVaBsqEALAY+o8TG53Uzt0iZKoqFsRy0gT4rahNiDZbUIjfn5vSIlOKOOQtLNrbG"
    "DHhnKKi9tsUCKqSuARrYqi3MXlNFLYGrG0x1qkOmK/RHyUVbZcWFBmxRUyY2cJBoHjwSAAVxGwvNkcvIVElraT1dKBvfvm0chrLB5koKs+ls6rtE"
    "+h01UQImA5WCVlA0MJR/QQ0V1svNpxVVUTZ+5kDuTB5j0wEGuxo7p8IwQSLsrp1NUdFGRGJB0StMOy7L/Trj5p4vNSAmov7gCMx6TJ5oYhLyoQFX"
    "ha6qGojZqH6tULk1wOooCIMask2JoRccfkUsIc2xYcCrzNCIw74ri9OFRoxFXek5QoKykBsK5Ydhzh8bkqye0CqF/8wHPmDmYJEv+Im/sMiHC2i/"
    "YTeZuJ1TM/pzp88ku/jhxm7pTeHY7SaQ1AZq/Db0g6o8JwmiDJshhhZwh81y2ITgAR9/Ea+bZZM39WiYj+oGls07A00A/+Bv1KS6qQ9krwOmz6bL"
    "9feyWR4ssMrgn1WbzTt5Zt4Pwfh+UTERgFB1KSAWuBiqlch2ZHz7N3GT9i0MCKcNpc0QF0LSBBoOu64xdrQe/YprE3wflcXENCNjXUO9LIydWGfa"
    "PpHRBHAty9uAlgUzMdE4+sNJfURLX26jFevlrSntCO3EgnyA2xeM/l6w43O0eeSF5F9xDBZxNaBM0ZTgLQ1aXsIpQiQyymiWEa2c9VC1hjUHBsEO"
    "zTGxsE3zwEnmgmx6Y9kIc/AMp3rWFKVQi3yByIZTtUVGV7AZwZClPp9UqrRLoUoLsNNZ4+ULdo5OBKoPqtdkrGcJZYwdYjt/LidLQLfDt5JAtzfc"
    "1sRBmHWv8+UCvRiabEmjNNuh/WhGpFytvrKZQXuEfyM7ag0P2WY3QgGgOfAw5qsylkEOYfa01pTCgT5q29QWO6KPGht21ns/9Fp7sxpMFnWMObWj"
    "3tFOQe3a3mv/53wb1GHNpg/rTKhqTXKkwqXzlIMXIJavvPzYeKHHViLzaBDeUgPZbqrpQhH0pFCMFalOSy8bWyF1B23VqJdEfol3fGzr5QSbSY6H"
    "K61wGxxR4T0Zat+uivp0tzLz2F3Fxpz8HNdwGw6FUdXr7qlf73lYyqta0qHtqGiV2/pheNNM3bAnFEqRZ+Bax6mdD63f1UpnpdgFF/DEe7+knXdY"
    "c9R6tM7rJzsb0I4SSi+ZxiDMVawHw9zLtqQmUWGcYVcvqkF+vqD4PDmsqehhFYn30xrvltVkndiy+gXLytZCwI2gr+tMBTBLWi7GfnJ0eEsOzlOB"
    "VhRKWHvYOIiK0Np7/RWa4TXldYlE+HxHYD6v6Rfsew7LlZFpLbP8XBz42jBUqoOEFieQYvg/dPYkqA=="
)
"""zlib of the runs of equal category from code point 0 up: each run's length (uint32, little-endian), then each
run's category (one byte: its index in NAMES)."""


@lru_cache(maxsize=1)
def categories() -> dict[str, Ranges]:
    """{two-letter category: its code points as ranges}, for Python's Unicode version."""
    if unicodedata.unidata_version != UNIDATA_VERSION:
        return scanned()
    return decoded(RUNS, NAMES)


def scanned() -> dict[str, Ranges]:
    """The table made by asking `unicodedata` for every code point (one pass)."""
    found: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category("\x00")
    for cp in range(1, MAX_CP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CP else ""
        if cat != current:
            found.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    return {cat: tuple(rs) for cat, rs in found.items()}


def decoded(runs: str, names: str) -> dict[str, Ranges]:
    """The table stored as `RUNS` and `NAMES`."""
    blob = zlib.decompress(base64.b64decode(runs))
    count = len(blob) // 5
    lengths = array("I", blob[: 4 * count])
    if sys.byteorder == "big":
        lengths.byteswap()
    labels = names.split()
    found: dict[str, list[tuple[int, int]]] = {}
    start = 0
    for length, index in zip(lengths, blob[4 * count:]):
        found.setdefault(labels[index], []).append((start, start + length - 1))
        start += length
    return {cat: tuple(rs) for cat, rs in found.items()}


def encoded(table: dict[str, Ranges]) -> tuple[str, str]:
    """(RUNS, NAMES) for a table: what `decoded` reads back."""
    labels = sorted(table)
    runs = sorted((lo, hi, labels.index(cat)) for cat, rs in table.items() for lo, hi in rs)
    lengths = array("I", [hi - lo + 1 for lo, hi, _ in runs])
    if sys.byteorder == "big":
        lengths.byteswap()
    blob = zlib.compress(lengths.tobytes() + bytes(index for _, _, index in runs), 9)
    return base64.b64encode(blob).decode(), " ".join(labels)


if __name__ == "__main__":
    text, labels = encoded(scanned())
    print(f'UNIDATA_VERSION = "{unicodedata.unidata_version}"\nNAMES = "{labels}"\nRUNS = (')
    for at in range(0, len(text), 112):
        print(f'    "{text[at:at + 112]}"')
    print(")")
