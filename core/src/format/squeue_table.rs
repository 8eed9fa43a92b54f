//! squeue's table built one job at a time: a selected job's line is written and its sort values taken as it comes,
//! so that a listing of 100,000 jobs is never held as 100,000 records (the client reads them from the controller's
//! rows into one reused record). Pending array tasks are the exception: they are kept until every job is in,
//! because they fold into one line per array (`24_[1-3]`).

use crate::format::arrays::{fold_group, Kept, KeptTasks};
use crate::format::columns::{render_line, render_line_into};
use crate::format::job_view::JobView;
use crate::format::squeue::{selected, SqueueOptions};
use crate::format::squeue_sort::{sort_order, sort_value, start_key, SortValue};
use crate::format::time::ctime;
use crate::format::FormatContext;
use crate::model::job::JobRecord;
use crate::wire::api::JobSelector;

/// What one row of the table prints: lines already written, or a fold of array tasks written at the end.
enum Row {
    Text { start: usize, end: usize },
    Fold(usize),
}

/// squeue's output, fed one job at a time ([`Table::push`]) in the controller's order.
pub struct Table<'c> {
    opts: SqueueOptions,
    ctx: &'c FormatContext,
    /// Every written line, in the order the jobs came.
    lines: String,
    rows: Vec<Row>,
    starts: Vec<Option<i64>>,
    /// `opts.sort.len()` values per row.
    values: Vec<SortValue>,
    kept: KeptTasks,
}

impl<'c> Table<'c> {
    pub fn new(opts: &SqueueOptions, ctx: &'c FormatContext) -> Table<'c> {
        // Asked for by its own id, a single array task prints as `12_3` even while pending (Slurm loads just that
        // job).
        let single_task = matches!(
            opts.job_ids.as_deref(),
            Some([JobSelector {
                array_task: Some(_),
                ..
            }])
        );
        Table {
            opts: SqueueOptions {
                expand_arrays: opts.expand_arrays || single_task,
                ..opts.clone()
            },
            ctx,
            lines: String::new(),
            rows: Vec::new(),
            starts: Vec::new(),
            values: Vec::new(),
            kept: KeptTasks::default(),
        }
    }

    /// Takes `job` in if squeue's filters select it.
    pub fn push(&mut self, job: &JobRecord) {
        if !selected(job, &self.opts) {
            return;
        }
        match self.kept.keep(job) {
            Kept::No => {
                let start = self.lines.len();
                self.write_line(&JobView::single(job));
                let end = self.lines.len();
                self.add_row(Row::Text { start, end }, &JobView::single(job));
            }
            Kept::NewFold(fold) => {
                // Sort values are taken when the fold is complete.
                self.rows.push(Row::Fold(fold));
                self.starts.push(None);
                self.values
                    .extend(std::iter::repeat_n(SortValue::Equal, self.opts.sort.len()));
            }
            Kept::Joined => {}
        }
    }

    fn write_line(&mut self, view: &JobView<'_>) {
        let ctx = self.ctx;
        render_line_into(&mut self.lines, &self.opts.layout, |f, _| {
            f.value(view, ctx)
        });
        self.lines.push('\n');
    }

    fn add_row(&mut self, row: Row, view: &JobView<'_>) {
        self.rows.push(row);
        self.starts.push(start_key(view, self.ctx.now));
        let ctx = self.ctx;
        self.values
            .extend(self.opts.sort.iter().map(|k| sort_value(k.key, view, ctx)));
    }

    /// The output: the date line and header as asked, then the rows in squeue's order.
    pub fn finish(mut self) -> String {
        let folds = std::mem::take(&mut self.kept.folds);
        let mut fold_text: Vec<(usize, usize)> = Vec::with_capacity(folds.len());
        let keys = self.opts.sort.len();
        let fold_rows: Vec<(usize, usize)> = (self.rows.iter().enumerate())
            .filter_map(|(row, slot)| match slot {
                Row::Fold(fold) => Some((row, *fold)),
                Row::Text { .. } => None,
            })
            .collect();
        for (row, fold) in fold_rows {
            let tasks: Vec<&JobRecord> = folds[fold].iter().collect();
            let view = fold_group(&tasks);
            let start = self.lines.len();
            if self.opts.expand_arrays {
                // With -r a fold still sorts as one, then prints one line per task.
                let mut by_task = tasks.clone();
                by_task.sort_by_key(|j| j.array_task_id);
                for task in by_task {
                    self.write_line(&JobView::single(task));
                }
            } else {
                self.write_line(&view);
            }
            fold_text.push((start, self.lines.len()));
            self.starts[row] = start_key(&view, self.ctx.now);
            for (k, key) in self.opts.sort.iter().enumerate() {
                self.values[row * keys + k] = sort_value(key.key, &view, self.ctx);
            }
        }
        let order = sort_order(&self.starts, &self.values, &self.opts.sort);
        let mut out = String::with_capacity(self.lines.len() + 256);
        // As in Slurm, -h drops the date line of -l and -i too.
        if self.opts.print_date && !self.opts.no_header {
            out.push_str(&ctime(self.ctx.now, self.ctx.utc_offset_secs));
            out.push('\n');
        }
        if !self.opts.no_header {
            out.push_str(&render_line(&self.opts.layout, |f, _| f.header()));
            out.push('\n');
        }
        for row in order {
            let (start, end) = match self.rows[row] {
                Row::Text { start, end } => (start, end),
                Row::Fold(fold) => fold_text[fold],
            };
            out.push_str(&self.lines[start..end]);
        }
        out
    }
}
