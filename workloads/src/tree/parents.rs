//! A parent relation validated once: its root, children, breadth-first order, levels and
//! depths, shared by the models of programs on any tree (farm and divide and conquer).

use super::model::ModelError;

/// Validated structure of a parent relation.
pub(crate) struct Tree {
    pub(crate) root: usize,
    pub(crate) children: Vec<Vec<usize>>,
    /// Processors in breadth-first order from the root (parents before children).
    pub(crate) order: Vec<usize>,
    /// Level of each processor (1 = leaf, root = 1 + height).
    pub(crate) levels: Vec<u32>,
    /// Edges from the root.
    pub(crate) depth: Vec<u32>,
}

impl Tree {
    pub(crate) fn new(parents: &[Option<usize>]) -> Result<Self, ModelError> {
        let n = parents.len();
        if n == 0 {
            return Err(ModelError::InvalidTree("no processors".into()));
        }
        let mut root = None;
        let mut children = vec![Vec::new(); n];
        for (i, p) in parents.iter().enumerate() {
            match *p {
                None if root.is_some() => {
                    return Err(ModelError::InvalidTree(format!(
                        "two roots: {} and {i}",
                        root.unwrap_or(0)
                    )));
                }
                None => root = Some(i),
                Some(j) if j >= n => {
                    return Err(ModelError::InvalidTree(format!(
                        "parent of {i} is {j}, out of range"
                    )));
                }
                Some(j) if j == i => {
                    return Err(ModelError::InvalidTree(format!("{i} is its own parent")));
                }
                Some(j) => children[j].push(i),
            }
        }
        let root = root.ok_or_else(|| ModelError::InvalidTree("no root".into()))?;
        let mut order = vec![root];
        let mut depth = vec![0u32; n];
        let mut next = 0;
        while next < order.len() {
            let p = order[next];
            next += 1;
            for &c in &children[p] {
                depth[c] = depth[p] + 1;
                order.push(c);
            }
        }
        if order.len() != n {
            return Err(ModelError::InvalidTree(format!(
                "{} processors are not connected to the root (cycle)",
                n - order.len()
            )));
        }
        let mut levels = vec![1u32; n];
        for &p in order.iter().rev() {
            if let Some(parent) = parents[p] {
                levels[parent] = levels[parent].max(levels[p] + 1);
            }
        }
        Ok(Self {
            root,
            children,
            order,
            levels,
            depth,
        })
    }

    pub(crate) fn height_levels(&self) -> u32 {
        self.levels[self.root]
    }

    pub(crate) fn by_level(&self, per_processor: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.height_levels() as usize];
        for (p, v) in per_processor.iter().enumerate() {
            out[self.levels[p] as usize - 1] += v;
        }
        out
    }
}
