//! "Did you mean" suggestions for unknown names.

/// The candidate closest to `input` by edit distance, if it is close enough to be a likely typo.
///
/// Case differences count as half an edit, so `pretooluse` finds `PreToolUse`.
///
/// ```
/// assert_eq!(hook_types::did_you_mean("timout_ms", ["timeout_ms", "cwd"]), Some("timeout_ms"));
/// assert_eq!(hook_types::did_you_mean("zzz", ["timeout_ms", "cwd"]), None);
/// ```
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let distance = weighted_distance(input, candidate);
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    // Distances are in half-edits (case-only edits cost 1, others 2): allow two edits, or half the word's length.
    let limit = input.chars().count().max(4);
    best.filter(|(d, _)| *d <= limit).map(|(_, c)| c)
}

/// Levenshtein distance in half-edits: a substitution that only changes case costs 1, any other edit 2.
fn weighted_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).map(|j| j * 2).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = (i + 1) * 2;
        for (j, cb) in b.iter().enumerate() {
            let substitution = if ca == cb {
                0
            } else if ca.to_lowercase().eq(cb.to_lowercase()) {
                1
            } else {
                2
            };
            current[j + 1] = (previous[j] + substitution).min(previous[j + 1] + 2).min(current[j] + 2);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_nearest_and_refuses_far_names() {
        let names = ["pre_tool", "post_tool", "turn_start", "turn_end"];
        assert_eq!(did_you_mean("pre_tol", names), Some("pre_tool"));
        assert_eq!(did_you_mean("turn_ned", names), Some("turn_end"));
        assert_eq!(did_you_mean("completely_else", names), None);
        assert_eq!(did_you_mean("pretooluse", ["PreToolUse", "PostToolUse"]), Some("PreToolUse"));
    }
}
