//! Eager runs of gated tools wait for a person's approval rather than
//! being refused: an eager run is a tool call with every check a tool call
//! has, and a call to a gated tool waits.
//!
//! A run the gate answers with [`GateOutcome::Pending`] is recorded
//! `pending` and asked about again before each turn. Once approved it
//! runs, and since the opening was already sent its exchange joins the
//! conversation as a note kept there, marked as the contributor's and as
//! approved late; once refused it is recorded `denied`.
//!
//! [`GateOutcome::Pending`]: crate::GateOutcome::Pending

use super::opening::{call_text, ran, refused, NotRun};
use super::turn::note;
use super::{Composer, Entry};
use crate::gate::Gate;
use crate::record::{Approval, Named, Note, Position, RunRecord, TurnRecord};
use crate::time::Timestamp;
use contrib_bundle::BundledCall;

impl<'a, G: Gate> Composer<'a, G> {
    /// Records a gated eager run as pending and keeps it to ask about again.
    pub(crate) fn await_approval(
        &mut self,
        entry: Entry<'a>,
        call: &'a BundledCall,
        reason: String,
    ) {
        self.state
            .pending
            .eager_runs
            .push(approval(refused(entry, call, reason), Approval::Pending));
        self.state.held.awaiting.push((entry, call));
    }

    /// Asks the gate again about each waiting run: an approved one runs
    /// now and its exchange is returned as a kept note, a refused one is
    /// recorded denied, the rest stay pending.
    pub(crate) fn retry_awaiting(&mut self, at: Timestamp, record: &mut TurnRecord) -> Vec<Note> {
        let mut notes = Vec::new();
        for (entry, call) in std::mem::take(&mut self.state.held.awaiting) {
            match self.run(entry, call, at, "the result") {
                Ok(output) => {
                    record
                        .eager_runs
                        .push(approval(ran(entry, call), Approval::Approved));
                    let text = format!(
                        "{} → {output} (run when a person approved it, after the conversation began)",
                        call_text(call)
                    );
                    notes.push(note(entry, text, true, Position::BeforePrompt));
                }
                Err(not_run) if not_run.pending => {
                    let name = entry.name();
                    let recorded = record.eager_runs.iter().any(|run| {
                        run.contributor == name && run.approval == Some(Approval::Pending)
                    });
                    if !recorded {
                        record.eager_runs.push(approval(
                            refused(entry, call, not_run.reason),
                            Approval::Pending,
                        ));
                    }
                    self.state.held.awaiting.push((entry, call));
                }
                Err(NotRun { reason, .. }) => {
                    record.eager_runs.push(approval(
                        refused(entry, call, reason.clone()),
                        Approval::Denied,
                    ));
                    record.refusals.push(entry.refuse(reason));
                }
            }
        }
        notes
    }
}

fn approval(mut run: RunRecord, approval: Approval) -> RunRecord {
    run.approval = Some(approval);
    run
}
