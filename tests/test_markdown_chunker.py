"""Tests for the Markdown chunker: section splitting, merge/split boundaries, fences, paths and lines."""

from __future__ import annotations

import dataclasses
import random

import pytest

from memlens.engine.indexing.markdown_chunker import MarkdownChunk, chunk_markdown


def section(heading: str, size: int, fill: str = "x") -> str:
    """A section of exactly ``size`` characters: the heading line plus one body line."""
    body = size - len(heading) - 1
    assert body > 0
    return f"{heading}\n{fill * body}"


def two_paragraph_section(heading: str, size: int) -> str:
    """A section of exactly ``size`` characters with one blank line splitting its body in two."""
    body = size - len(heading) - 1 - 2  # heading newline, then "\n\n" between the paragraphs
    first = body // 2
    return f"{heading}\n{'a' * first}\n\n{'b' * (body - first)}"


def file_lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def assert_consistent(text: str, chunks: list[MarkdownChunk]) -> None:
    """Every chunk is the file's lines verbatim, chunks are ordered and cover every non-blank line once."""
    lines = file_lines(text)
    covered: list[int] = []
    for chunk in chunks:
        assert 1 <= chunk.line_start <= chunk.line_end <= len(lines)
        assert chunk.text == "\n".join(lines[chunk.line_start - 1 : chunk.line_end])
        assert lines[chunk.line_start - 1].strip() and lines[chunk.line_end - 1].strip()
        covered.extend(range(chunk.line_start, chunk.line_end + 1))
    assert covered == sorted(set(covered))
    non_blank = [number for number, line in enumerate(lines, 1) if line.strip()]
    assert set(non_blank) <= set(covered)


# --- empty input and no headings ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n", "   \n\t\n\n", "\r\n\r\n"])
def test_empty_or_blank_input_gives_no_chunks(text: str) -> None:
    assert chunk_markdown(text) == []


def test_no_headings_short_document_is_one_chunk_with_empty_path() -> None:
    text = "\n\nJust a note about the build.\nIt uses make.\n\n"
    assert chunk_markdown(text) == [
        MarkdownChunk("Just a note about the build.\nIt uses make.", (), 3, 4),
    ]


def test_no_headings_long_document_splits_at_paragraphs() -> None:
    paragraphs = [chr(ord("a") + i) * 300 for i in range(4)]
    text = "\n\n".join(paragraphs)
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == ["\n\n".join(paragraphs[:2]), "\n\n".join(paragraphs[2:])]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 3), (5, 7)]
    assert all(c.heading_path == () for c in chunks)


def test_text_before_first_heading_is_its_own_section() -> None:
    text = section("preamble", 120) + "\n" + section("# Title", 120)
    chunks = chunk_markdown(text)
    assert [c.heading_path for c in chunks] == [(), ("Title",)]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (3, 4)]


# --- merging short sections ----------------------------------------------------------------------------


def test_section_of_99_chars_merges_with_next() -> None:
    first = section("# Short", 99)
    text = first + "\n" + section("# Next", 150)
    assert len(first) == 99
    chunks = chunk_markdown(text)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("Short",)
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 4)
    assert chunks[0].text == text


def test_section_of_100_chars_stands_alone() -> None:
    first = section("# Exact", 100)
    text = first + "\n" + section("# Next", 150)
    assert len(first) == 100
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == [first, section("# Next", 150)]
    assert [c.heading_path for c in chunks] == [("Exact",), ("Next",)]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (3, 4)]


def test_size_counts_heading_line_but_not_surrounding_blank_lines() -> None:
    # 100 characters between the trimmed edges; the blank lines around it do not count.
    first = section("# Exact", 100)
    text = "\n\n" + first + "\n\n\n" + section("# Next", 150) + "\n\n"
    chunks = chunk_markdown(text)
    assert len(chunks) == 2
    assert (chunks[0].line_start, chunks[0].line_end) == (3, 4)
    assert (chunks[1].line_start, chunks[1].line_end) == (7, 8)


def test_short_sections_merge_repeatedly_until_long_enough() -> None:
    text = "\n".join(
        [
            section("# A", 30),
            section("## B", 30),
            section("## C", 30),
            section("## D", 150),
            section("## E", 150),
        ]
    )
    chunks = chunk_markdown(text)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "E")]
    # A+B+C is 92 chars (with the newlines): still short, so D joins too.
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 8), (9, 10)]


def test_short_last_section_merges_into_previous_chunk() -> None:
    text = section("# Long", 150) + "\n\n" + section("## Tail", 20)
    chunks = chunk_markdown(text)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("Long",)
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 5)
    assert chunks[0].text == text


def test_several_short_trailing_sections_merge_into_previous_chunk() -> None:
    text = "\n".join([section("# Long", 150), section("## T1", 20), section("## T2", 20)])
    chunks = chunk_markdown(text)
    assert [(c.line_start, c.line_end, c.heading_path) for c in chunks] == [(1, 6, ("Long",))]


def test_whole_short_file_is_one_chunk() -> None:
    assert chunk_markdown("# Tiny\nhi") == [MarkdownChunk("# Tiny\nhi", ("Tiny",), 1, 2)]


def test_merged_chunk_takes_first_non_empty_heading_path() -> None:
    text = "short preamble\n\n" + section("# Real", 150)
    chunks = chunk_markdown(text)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("Real",)
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 4)


def test_heading_only_section_merges_with_its_child() -> None:
    text = "# Project\n\n## Deploy\n" + "d" * 150
    chunks = chunk_markdown(text)
    assert chunks == [MarkdownChunk(text, ("Project",), 1, 4)]


def test_min_chars_zero_disables_merging() -> None:
    text = "# A\na\n# B\nb"
    chunks = chunk_markdown(text, min_chars=0)
    assert [(c.text, c.heading_path) for c in chunks] == [("# A\na", ("A",)), ("# B\nb", ("B",))]


# --- splitting long sections ---------------------------------------------------------------------------


def test_section_of_800_chars_stays_whole() -> None:
    text = two_paragraph_section("# Big", 800)
    assert len(text) == 800
    chunks = chunk_markdown(text)
    assert chunks == [MarkdownChunk(text, ("Big",), 1, 4)]


def test_section_of_801_chars_splits_at_the_blank_line() -> None:
    text = two_paragraph_section("# Big", 801)
    assert len(text) == 801
    lines = text.split("\n")
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == ["\n".join(lines[:2]), lines[3]]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (4, 4)]
    assert [c.heading_path for c in chunks] == [("Big",), ("Big",)]


def test_paragraphs_are_packed_greedily() -> None:
    paragraphs = [f"{i}" * 250 for i in range(5)]
    text = "## Notes\n\n" + "\n\n".join(paragraphs)
    chunks = chunk_markdown(text)
    # heading (8) + 2 + 250 + 2 + 250 = 512; adding a third paragraph would make 764 — still fits.
    assert [c.text.count("\n\n") for c in chunks] == [3, 1]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 7), (9, 11)]
    assert all(len(c.text) <= 800 for c in chunks)
    assert all(c.heading_path == ("Notes",) for c in chunks)


def test_every_sub_chunk_keeps_heading_path_and_index_context() -> None:
    text = "# Project\n## Deploy\n\n" + "\n\n".join("p" * 500 for _ in range(3))
    chunks = chunk_markdown(text)
    assert len(chunks) == 3
    assert chunks[0].heading_path == ("Project",)  # the merged run starts at "# Project"
    assert chunks[1].heading_path == ("Project", "Deploy")
    assert chunks[2].index_text == "Project › Deploy\n" + "p" * 500


def test_long_paragraph_without_blank_lines_splits_between_lines() -> None:
    lines = [f"- item {i:02d} " + "z" * 89 for i in range(20)]  # 20 lines of 99 chars
    text = "\n".join(lines)
    chunks = chunk_markdown(text)
    assert len(chunks) == 3
    assert all(len(c.text) <= 800 for c in chunks)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 8), (9, 16), (17, 20)]
    assert_consistent(text, chunks)


def test_single_huge_line_stays_whole() -> None:
    text = "# H\n" + "w" * 2000
    chunks = chunk_markdown(text)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 1), (2, 2)]
    assert chunks[1].text == "w" * 2000
    assert chunks[1].heading_path == ("H",)


# --- code fences -------------------------------------------------------------------------------------


def test_hash_comment_inside_backtick_fence_is_not_a_heading() -> None:
    text = "# Setup\n```bash\n# install deps\npip install x\n```\nafter"
    chunks = chunk_markdown(text, min_chars=0)
    assert chunks == [MarkdownChunk(text, ("Setup",), 1, 6)]


def test_hash_comment_inside_tilde_fence_is_not_a_heading() -> None:
    text = "# Setup\n~~~ python title=x\n## not a heading\n~~~\n## Real\nbody"
    chunks = chunk_markdown(text, min_chars=0)
    assert [c.heading_path for c in chunks] == [("Setup",), ("Setup", "Real")]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 4), (5, 6)]


def test_fence_closes_only_with_same_char_and_at_least_same_length() -> None:
    text = "\n".join(
        [
            "# Top",
            "````markdown",
            "```",
            "# still inside",
            "~~~~",
            "## also inside",
            "`````",
            "## Outside",
            "text",
        ]
    )
    chunks = chunk_markdown(text, min_chars=0)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        (("Top",), 1, 7),
        (("Top", "Outside"), 8, 9),
    ]


def test_backtick_line_with_backticks_in_info_string_is_not_a_fence() -> None:
    text = "# A\n``` not `a` fence\n## B\nbody"
    chunks = chunk_markdown(text, min_chars=0)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "B")]


def test_indented_fence_in_list_item_hides_headings() -> None:
    text = "# A\n- step:\n    ```sh\n    # comment\n    ```\n## B\nbody"
    chunks = chunk_markdown(text, min_chars=0)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        (("A",), 1, 5),
        (("A", "B"), 6, 7),
    ]


def test_unclosed_fence_runs_to_end_of_file() -> None:
    text = "# A\nintro\n```\n# not heading\n\n## nor this\n"
    chunks = chunk_markdown(text, min_chars=0)
    assert chunks == [MarkdownChunk(text.rstrip("\n"), ("A",), 1, 6)]


def test_fence_with_blank_lines_inside_is_not_split() -> None:
    fence = "```python\n" + "\n\n".join(f"x{i} = {i}" + "#" * 60 for i in range(6)) + "\n```"
    text = "# Code\n\n" + "a" * 500 + "\n\n" + fence + "\n\n" + "b" * 300
    assert len(text) > 800
    chunks = chunk_markdown(text)
    assert_consistent(text, chunks)
    fence_chunks = [c for c in chunks if "```python" in c.text]
    assert len(fence_chunks) == 1
    assert fence in fence_chunks[0].text
    assert all(c.heading_path == ("Code",) for c in chunks)


def test_huge_fence_stays_whole_in_one_chunk() -> None:
    body = "\n\n".join(f"line {i} " + "q" * 70 for i in range(40))
    fence = f"~~~\n{body}\n~~~"
    text = "# Dump\nbefore\n\n" + fence + "\n\nafter"
    assert len(fence) > 800
    chunks = chunk_markdown(text)
    assert [c.text for c in chunks] == ["# Dump\nbefore", fence, "after"]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (4, 4 + fence.count("\n")), (86, 86)]


def test_huge_fence_inside_a_long_paragraph_stays_whole() -> None:
    fence = "```\n" + "\n".join("r" * 79 for _ in range(15)) + "\n```"
    text = "# P\n" + "\n".join(["lead " * 30, fence, "tail " * 30])
    chunks = chunk_markdown(text)
    assert fence in [c.text for c in chunks]
    assert_consistent(text, chunks)


# --- headings and paths --------------------------------------------------------------------------------


def test_heading_paths_follow_nesting() -> None:
    text = "# A\na\n## B\nb\n### C\nc\n## D\nd"
    chunks = chunk_markdown(text, min_chars=0)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "B"), ("A", "B", "C"), ("A", "D")]


def test_skipped_levels_and_new_top_level_heading() -> None:
    text = "# A\na\n### C\nc\n## D\nd\n# E\ne\n### F\nf"
    chunks = chunk_markdown(text, min_chars=0)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "C"), ("A", "D"), ("E",), ("E", "F")]


@pytest.mark.parametrize(
    "line",
    ["#### Deep", "##### Deeper", "#hashtag", "    # indented code", "#", "#   ", "\\# escaped"],
)
def test_lines_that_are_not_headings(line: str) -> None:
    text = f"# A\n{line}\nbody"
    chunks = chunk_markdown(text, min_chars=0)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [(("A",), 1, 3)]


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("## Title ##", "Title"),
        ("##\tTabbed", "Tabbed"),
        ("   ### Indented", "Indented"),
        ("## C# notes", "C# notes"),
        ("## Trailing   ", "Trailing"),
    ],
)
def test_heading_titles(line: str, title: str) -> None:
    chunks = chunk_markdown(f"{line}\nbody", min_chars=0)
    assert chunks[0].heading_path == (title,)


# --- line numbers, CRLF, BOM -------------------------------------------------------------------------


def test_exact_line_numbers_with_trimmed_blank_edges() -> None:
    lines = [
        "",  # 1
        "intro",  # 2
        "",  # 3
        "# One",  # 4
        "",  # 5
        "first body",  # 6
        "",  # 7
        "",  # 8
        "## Two",  # 9
        "second body",  # 10
        "   ",  # 11
        "# Three",  # 12
        "",  # 13
    ]
    chunks = chunk_markdown("\n".join(lines), min_chars=0)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        ((), 2, 2),
        (("One",), 4, 6),
        (("One", "Two"), 9, 10),
        (("Three",), 12, 12),
    ]
    assert chunks[1].text == "# One\n\nfirst body"


def test_crlf_input_gives_same_chunks_as_lf() -> None:
    lf = "pre\n\n# A\n" + "a" * 120 + "\n## B\n```\n# no\n```\n" + "b" * 120 + "\n"
    crlf = lf.replace("\n", "\r\n")
    chunks = chunk_markdown(crlf)
    assert chunks == chunk_markdown(lf)
    assert all("\r" not in c.text for c in chunks)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        (("A",), 1, 4),
        (("A", "B"), 5, 9),
    ]


def test_leading_bom_is_ignored() -> None:
    assert chunk_markdown("\ufeff# Title\nbody") == [MarkdownChunk("# Title\nbody", ("Title",), 1, 2)]


# --- the chunk type and arguments --------------------------------------------------------------------


def test_index_text_prefixes_heading_path() -> None:
    chunk = MarkdownChunk("## Rollback\nrun it", ("Project", "Deploy", "Rollback"), 3, 4)
    assert chunk.index_text == "Project › Deploy › Rollback\n## Rollback\nrun it"
    assert MarkdownChunk("plain", (), 1, 1).index_text == "plain"


def test_chunk_is_frozen_and_slotted() -> None:
    chunk = MarkdownChunk("t", (), 1, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.text = "u"  # type: ignore[misc]
    assert not hasattr(chunk, "__dict__")


@pytest.mark.parametrize(("min_chars", "max_chars"), [(-1, 800), (900, 800), (0, 0)])
def test_invalid_sizes_are_rejected(min_chars: int, max_chars: int) -> None:
    with pytest.raises(ValueError):
        chunk_markdown("# A", min_chars=min_chars, max_chars=max_chars)


# --- invariants on generated documents ---------------------------------------------------------------


def random_document(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(0, 30)):
        kind = rng.random()
        if kind < 0.25:
            parts.append("#" * rng.randint(1, 4) + " heading " + str(rng.randint(0, 99)))
        elif kind < 0.35:
            fence = rng.choice(["```", "~~~", "````"])
            inner = "\n".join(rng.choice(["# c", "", "code " * rng.randint(1, 40)]) for _ in range(5))
            parts.append(f"{fence}\n{inner}\n{fence}")
        elif kind < 0.5:
            parts.append(rng.choice(["", "  ", "\t"]))
        else:
            parts.append(" ".join("word" for _ in range(rng.randint(1, 120))))
    return rng.choice(["\n", "\r\n"]).join(parts)


@pytest.mark.parametrize("seed", range(40))
def test_generated_documents_keep_invariants(seed: int) -> None:
    rng = random.Random(seed)
    text = random_document(rng)
    min_chars, max_chars = rng.choice([(100, 800), (0, 200), (50, 50)])
    chunks = chunk_markdown(text, min_chars=min_chars, max_chars=max_chars)
    assert_consistent(text, chunks)
    for chunk in chunks:
        within_one_block = chunk.line_start == chunk.line_end or "```" in chunk.text or "~~~" in chunk.text
        assert len(chunk.text) <= max_chars or within_one_block
