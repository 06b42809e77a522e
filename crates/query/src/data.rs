//! The value and global-data types jaq runs with; shared by the natives, the
//! compiler, the runner and the readers (a leaf: it uses no other module).

use jaq_core::DataT;
use jaq_core::data::HasLut;
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs};

/// Value-type and global-data description for jaq: values are `jaq_json::Val`
/// and native filters can reach the rest of the inputs (`input`, `inputs`).
pub(crate) struct QData;

impl DataT for QData {
    type V<'a> = Val;
    type Data<'a> = Globals<'a>;
}

/// Global data of one run: the program and the shared input stream.
#[derive(Clone)]
pub(crate) struct Globals<'a> {
    pub(crate) lut: &'a jaq_core::Lut<QData>,
    pub(crate) inputs: Inputs<'a, Val>,
}

impl<'a> HasLut<'a, QData> for Globals<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<QData> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for Globals<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

/// The input values of a run: parsed lazily, with parse errors as messages.
pub(crate) type InputIter<'a> = Box<dyn Iterator<Item = Result<Val, String>> + 'a>;
