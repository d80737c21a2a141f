//! The sequential reference of §2.1, written straight from the specification.

use super::grain::OclError;

/// `B(i) = (# j : i−N < j ≤ i : A(j) = A(i))` for every `i < a.len()`, with `A(−j) = 0` for
/// `j > 0`.
///
/// The padding matters: for `i < N−1` the window holds `N−1−i` padding zeros, which count as
/// occurrences when `A(i) = 0`. This is the direct `O(L·N)` definition, the specification every
/// systolic program is tested against (it is also the sequential program `s(L) = LNβ` of §2.3).
///
/// Errors: [`OclError::ZeroWindow`] for `n = 0`.
pub fn ocl_reference(a: &[i64], n: usize) -> Result<Vec<u64>, OclError> {
    if n == 0 {
        return Err(OclError::ZeroWindow);
    }
    let at = |j: isize| -> i64 { if j < 0 { 0 } else { a[j as usize] } };
    Ok((0..a.len())
        .map(|i| {
            let i = i as isize;
            let last = a[i as usize];
            (i + 1 - n as isize..=i).filter(|&j| at(j) == last).count() as u64
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_window_is_an_error() {
        assert_eq!(ocl_reference(&[1, 2], 0), Err(OclError::ZeroWindow));
    }

    #[test]
    fn window_of_one_is_all_ones() {
        assert_eq!(ocl_reference(&[5, 0, -3, 5], 1).unwrap(), vec![1, 1, 1, 1]);
    }

    #[test]
    fn padding_counts_as_zeros() {
        // N = 3: B(0) sees A(−2), A(−1), A(0) = 0, 0, 0.
        assert_eq!(ocl_reference(&[0, 0, 1, 0], 3).unwrap(), vec![3, 3, 1, 2]);
        // Non-zero values never match the padding.
        assert_eq!(ocl_reference(&[7, 7, 7, 7], 3).unwrap(), vec![1, 2, 3, 3]);
        // Stream shorter than the window.
        assert_eq!(ocl_reference(&[0, -1], 5).unwrap(), vec![5, 1]);
        assert_eq!(ocl_reference(&[], 5).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn hand_worked_example() {
        assert_eq!(
            ocl_reference(&[-2, 4, -2, 4, 4, -2], 3).unwrap(),
            vec![1, 1, 2, 2, 2, 1]
        );
    }
}
